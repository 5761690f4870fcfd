/**
 * `--help`: @effect/cli's help of a command without what is not Scanbridge's (its own flags, and
 * the boilerplate it adds to every flag), then what a command's help shows after it: the usage as
 * typed, the exit codes and examples. @effect/cli lists a command's description in its parent's
 * help as one line, so this cannot go in the description.
 */
import { CliConfig, CommandDescriptor, HelpDoc, Usage } from "@effect/cli"
import type * as Span from "@effect/cli/HelpDoc/Span"
import { Array as Arr } from "effect"

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

/**
 * What @effect/cli adds to every flag's and argument's help: the type of its value ("A
 * user-defined piece of text."), whether it is optional or repeated. Scanbridge's own
 * descriptions say what the value is and its default, so these only repeat it less well.
 */
export const BOILERPLATE: ReadonlyArray<RegExp> = [
  /^A user-defined piece of text/,
  /^A true or false value\.$/,
  /^An? (integer|floating point number|date|path|file|directory|secret|key\/value pair)\b/i,
  /^One of the following: /,
  /^This setting is optional\./,
  /^This (option|argument) may be repeated /,
  /^This argument is optional\./
]

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

/** `doc` without @effect/cli's boilerplate paragraphs (BOILERPLATE). */
export const withoutBoilerplate = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph":
      return BOILERPLATE.some((re) => re.test(spanText(doc.value).trim())) ? HelpDoc.empty : doc
    case "Sequence":
      return HelpDoc.sequence(withoutBoilerplate(doc.left), withoutBoilerplate(doc.right))
    case "DescriptionList":
      return HelpDoc.descriptionList(Arr.map(doc.definitions, ([term, what]) => [term, withoutBoilerplate(what)] as [Span.Span, HelpDoc.HelpDoc]))
    case "Enumeration":
      return HelpDoc.enumeration(Arr.map(doc.elements, withoutBoilerplate))
    default:
      return doc
  }
}

/** Help shows Scanbridge's flags only: --help and --version are named once, in the usage. */
const CONFIG: CliConfig.CliConfig = { ...CliConfig.defaultConfig, showBuiltIns: false }

/**
 * `scanbridge [command] --help`: the version, the usage as @effect/cli enumerates it (prefixed
 * with `prefix`, the words before it), and the command's help without @effect/cli's boilerplate
 * or its own flags (--wizard, --completions, --log-level), which Scanbridge does not take.
 */
export const helpText = (descriptor: CommandDescriptor.Command<unknown>, prefix: string, version: string, usage?: ReadonlyArray<string>): string => {
  const usages = usage ?? Usage.enumerate(CommandDescriptor.getUsage(descriptor), CONFIG).map((span) => `${prefix}${spanText(span)}`)
  return HelpDoc.toAnsiText(
    HelpDoc.blocks([
      HelpDoc.p(`scanbridge ${version}`),
      HelpDoc.h1("USAGE"),
      ...usages.map((u) => HelpDoc.p(`$ ${u}`)),
      withoutBoilerplate(CommandDescriptor.getHelp(descriptor, CONFIG))
    ])
  )
}
