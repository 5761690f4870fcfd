/**
 * What a command's `--help` shows after @effect/cli's own help: the usage as typed, the exit
 * codes and examples. @effect/cli lists a command's description in its parent's help as one line,
 * so this cannot go in the description.
 */
export interface HelpEpilogue {
  readonly usage: string
  readonly exitCodes?: ReadonlyArray<readonly [number, string]>
  readonly examples: ReadonlyArray<string>
}

export const renderEpilogue = (help: HelpEpilogue): string =>
  [
    "USAGE AS TYPED",
    "",
    `  ${help.usage}`,
    "",
    ...(help.exitCodes === undefined ? [] : ["EXIT CODES", "", ...help.exitCodes.map(([code, what]) => `  ${String(code).padStart(3)}  ${what}`), ""]),
    "EXAMPLES",
    "",
    ...help.examples.map((e) => `  $ ${e}`),
    ""
  ].join("\n")
