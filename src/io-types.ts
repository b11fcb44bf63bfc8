/**
 * Where a command writes: the one output contract of the agentguard CLI and the standalone
 * model-server command (a leaf module, so that both can use it whatever their layer).
 */
export type CliIO = {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Raw writes to stderr, present only when stderr is a terminal (for redrawn status lines). */
  tty?: (raw: string) => void;
};
