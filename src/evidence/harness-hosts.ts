/**
 * The name the harness's own model endpoint (the scripted model server, or the relay) is served
 * under to the sandboxed agent, through the egress proxy. What an agent receives from it is the
 * model's answers, never a download.
 */
export const MODEL_HOST = 'model.agentguard.test';
