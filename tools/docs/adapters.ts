/** Markdown tables rendered from the collection of built-in adapters in @scanbridge/migrate. */
import { MEASUREMENT_NAMES, OTHER_SPELLINGS } from "@scanbridge/model"
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

/** Each adapter's known other spellings of measurements, read with an `aliased` note, and the canonical form's. */
export const otherSpellingTable = (): string =>
  table(
    ["measurement", "canonical form", ...defaultNormalizer.adapters.flatMap((a) => (a.dialect === undefined ? [] : [a.name]))],
    MEASUREMENT_NAMES.flatMap((name) => {
      const canonical = Object.entries(OTHER_SPELLINGS)
        .filter(([, n]) => n === name)
        .map(([other]) => code(other))
      const each = defaultNormalizer.adapters.flatMap((a) =>
        a.dialect === undefined
          ? []
          : [
              a.dialect.aliasList
                .filter((x) => x.name === name)
                .map((x) => code(x.alias))
                .join(", ") || "(none)"
            ]
      )
      return canonical.length === 0 && each.every((c) => c === "(none)") ? [] : [[code(name), canonical.join(", ") || "(none)", ...each]]
    })
  )
