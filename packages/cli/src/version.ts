/** The version `scanbridge --version` prints: the package's (a test holds them equal). */
export const VERSION = "0.1.0"

/** Whether a command line (without node and the script) asks for the version and nothing else. */
export const asksForVersion = (args: ReadonlyArray<string>): boolean => args.length === 1 && args[0] === "--version"
