// Exit codes of every arefcheck command (DESIGN.md "Conventions"); JSON reports carry the same verdict.
export const EXIT = {
  verified: 0,
  violation: 1,
  badInput: 2,
  inconclusive: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
