import type { Decision } from './player.js';
import { mapShellCall } from './shell-tool.js';
import type { ConversationView, Reply, ToolCallOut, TurnBody } from './types.js';

/** Turn the player's decision into the answer to send, mapping scripted calls onto offered tools. */
export function buildReply(decision: Decision, view: ConversationView, idPrefix: string): Reply {
  switch (decision.kind) {
    case 'side':
    case 'exhausted':
      return { kind: 'message', text: decision.text, calls: [] };
    case 'refused':
    case 'loop':
      return { kind: 'error', status: 400, message: decision.message };
    case 'turn':
    case 'retry':
      return bodyReply(decision.body, decision.turn.index, view, idPrefix);
  }
}

function bodyReply(body: TurnBody, turnIndex: number, view: ConversationView, idPrefix: string): Reply {
  const calls: ToolCallOut[] = [];
  for (const [i, call] of body.calls.entries()) {
    const id = `${idPrefix}_${i + 1}`;
    if (call.kind === 'tool') {
      calls.push({ id, name: call.name, arguments: JSON.stringify(call.args) });
      continue;
    }
    const mapped = mapShellCall(call.command, view.tools);
    if (!mapped) {
      const offered = view.tools.map((t) => t.name).join(', ') || 'none';
      return {
        kind: 'error',
        status: 400,
        message: `agentguard model-server: turn ${turnIndex} scripts a shell call, but the request offers no shell tool (offered: ${offered}); script it as \`tool: NAME\` with \`args:\` instead`,
      };
    }
    calls.push({ id, name: mapped.name, arguments: JSON.stringify(mapped.args) });
  }
  return { kind: 'message', text: body.text ?? '', calls };
}
