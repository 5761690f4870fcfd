/** Markdown tables rendered from the collection of built-in adapters in @scanbridge/migrate. */
import { defaultNormalizer } from "@scanbridge/migrate"
import { code, table } from "./tables.js"

/** Every format the normalizer detects, in detection order, with what its shape test looks for. */
export const formatTable = (): string =>
  table(
    ["format", "API", "shape"],
    defaultNormalizer.formats.map((f) => [code(f.name), f.api === null ? "(canonical)" : code(f.api), f.shape ?? ""])
  )

/** The targets `--to` (and the plain `encode`) takes, one per adapter besides the canonical form. */
export const targetList = (): string =>
  `Targets: ${[...defaultNormalizer.encoders.keys()].map(code).join(", ")}, and the target of every adapter added with \`--adapter\` (or \`{ adapters }\`).`
