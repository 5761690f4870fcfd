/**
 * A chunk's output lines gathered as UTF-8 bytes: the same bytes as encoding the lines joined,
 * whatever the characters, however many lines and takes, and however far the buffer must grow.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { giveBytes } from "../src/internal/buffers.js"
import { utf8Lines } from "../src/internal/utf8-lines.js"

const encoded = (lines: ReadonlyArray<string>) => new TextEncoder().encode(lines.map((line) => `${line}\n`).join(""))

// Characters of one to four UTF-8 bytes, and lone surrogates (which both encoders write as
// U+FFFD); some lines long enough (past the 1 MiB buffer, in three-byte characters) to make it grow.
const line = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom("\uD800", "a\uDC00b", "𝄞".repeat(3)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x", "é", "€", "𝄞"), fc.integer({ min: 100_000, max: 400_000 })).map(([c, n]) => c.repeat(n)) }
)

describe("utf8Lines", () => {
  it("gives the bytes of each take's lines, each followed by a newline, as TextEncoder encodes them", () => {
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), (takes) => {
        const gathered = utf8Lines()
        const taken = takes.map((lines) => {
          for (const text of lines) gathered.add(text)
          return gathered.take()
        })
        // Compared once all are taken: a take is handed over, and no later one writes over it.
        // As buffers: a deep equality of megabytes, element by element, takes minutes.
        takes.forEach((lines, i) => expect(Buffer.compare(taken[i]!, encoded(lines))).toBe(0))
      }),
      { numRuns: 40 }
    )
  })

  it("gathers the next lines in a buffer given back, not a new one", () => {
    const gathered = utf8Lines()
    gathered.add("first")
    const first = gathered.take()
    giveBytes(first)
    gathered.add("second")
    const second = gathered.take()
    expect(second.buffer).toBe(first.buffer)
    expect(new TextDecoder().decode(second)).toBe("second\n")
  })

  it("drops what was added before a clear", () => {
    const gathered = utf8Lines()
    gathered.add("lost")
    gathered.clear()
    gathered.add("kept")
    expect(new TextDecoder().decode(gathered.take())).toBe("kept\n")
  })
})
