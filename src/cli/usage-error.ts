/** The command line itself is wrong (an unknown command or action): one sentence with the fix, exit 2. */
export class UsageError extends Error {}
