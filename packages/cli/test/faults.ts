/**
 * Fault injection: `scanbridge migrate` runs broken the ways an operator's are (the command
 * killed at a random point, the database server stopped fast or immediately under a reading or a
 * writing run), then `--resume`d, each compared with a run that never stopped: the same bytes in
 * every file, the same rows in every table. A broken run never exits 0; a resume always does.
 *
 * `faultSuite(trials)` defines the tests: the default suite runs it with a trial of each kind
 * (faults.test.ts), `pnpm test:faults` with at least 20 (faults.sweep.ts). The trials' random
 * places come from a seed, printed with the figures, so that a failure can be run again
 * (SCANBRIDGE_FAULT_SEED).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { type RunningPostgres, type StopMode, startPostgres } from "../../migrate/test/postgres.js"
import { exited, repoRoot, spawnCli } from "./harness.js"

const TIMEOUT = 3_600_000
/** A broken run that has not ended this long after its fault hangs: that is a failure, not a wait. */
const HANG_MS = 120_000
const ROWS = 12_000

/** How many records a run has committed so far, by its checkpoint. */
type Probe = () => Promise<number>

type Kind = "file run killed" | "database run killed" | "source server stopped" | "sink server stopped"

interface Figures {
  trials: number
  /** Trials whose fault came while the run was going (the rest had finished, and were compared all the same). */
  faulted: number
  resumed: number
  identical: number
}

const records = (): ReadonlyArray<string> => {
  const lines = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  const broken = readFileSync(join(repoRoot, "examples/export/broken.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  return [...lines, ...broken]
}

/** SCANBRIDGE_FAULT_LOG=1 prints each trial's steps as they happen, to see where a sweep is. */
const step = (text: string) => {
  if (process.env.SCANBRIDGE_FAULT_LOG === "1") process.stderr.write(`faults: ${text}\n`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A command of its own, with what it prints on standard error kept, and its end (whenever it comes). */
const spawned = (args: ReadonlyArray<string>) => {
  const child = spawnCli(args, { stderr: true })
  const done = exited(child)
  let text = ""
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => void (text += chunk))
  return { child, done, printed: () => text }
}

/** The exit code of `child`, or a failure once it has run `HANG_MS` past its fault. */
const ended = async ({ child, done }: ReturnType<typeof spawned>, what: string): Promise<number | null> => {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${what}: still running ${HANG_MS / 1000} s after its fault: it hangs`))
    }, HANG_MS)
  })
  try {
    return await Promise.race([done, hung])
  } finally {
    clearTimeout(timer)
  }
}

export const faultSuite = (trials: number): void => {
  const seed = Number(process.env.SCANBRIDGE_FAULT_SEED ?? Date.now() % 1_000_000)
  // mulberry32: places that a seed gives again.
  let state = seed >>> 0
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** A whole number of milliseconds in [0, ms). */
  const pick = (ms: number) => Math.floor(random() * ms)
  const figures = new Map<Kind, Figures>()
  const count = (kind: Kind, field: keyof Figures) => {
    const f = figures.get(kind) ?? { trials: 0, faulted: 0, resumed: 0, identical: 0 }
    f[field]++
    figures.set(kind, f)
  }

  let dir: string
  let db: RunningPostgres
  const inputs = () => [join(dir, "a.ndjson"), join(dir, "b.ndjson")]
  const query = "select id, payload from legacy"

  /** A clean run, to compare with. */
  const clean = async (kind: Kind, args: ReadonlyArray<string>) => {
    const run = spawned(args)
    expect(await ended(run, kind), run.printed()).toBe(0)
  }

  const rowsOf = async (table: string) => JSON.stringify((await db.admin.query(`select * from ${table} order by 1, 2`)).rows)
  const sameTables = async (table: string, clean: string) =>
    (await rowsOf(table)) === (await rowsOf(clean)) && (await rowsOf(`${table}_rejects`)) === (await rowsOf(`${clean}_rejects`))
  const sameFiles = (out: string, clean: string) =>
    ["ndjson", "rejects"].every((ext) => existsSync(`${out}.${ext}`) && readFileSync(`${out}.${ext}`).equals(readFileSync(`${clean}.${ext}`)))

  const removeFiles = async (name: string) => {
    for (const ext of ["ndjson", "rejects"]) await rm(`${name}.${ext}`, { force: true })
  }
  const dropTables = async (table: string) => {
    await db.admin.query(`drop table ${table}, ${table}_rejects`)
  }
  const fromQuery = () => ["--from", db.url, "--query", query]

  /** An attempt reading `reads` into the files `name`.ndjson and .rejects, compared with the clean run's `clean`. */
  const intoFiles = (reads: ReadonlyArray<string>, name: string, clean: string) => ({
    args: ["migrate", ...reads, "--out", `${name}.ndjson`, "--rejects", `${name}.rejects`, "--resumable", "--quiet"],
    checkpoint: fileCheckpoint(`${name}.ndjson`),
    same: async () => sameFiles(name, join(dir, clean)),
    remove: () => removeFiles(name)
  })
  /** An attempt reading `reads` into `table` and its rejects, compared with the clean run's `clean`. */
  const intoTable = (reads: ReadonlyArray<string>, table: string, clean: string) => ({
    args: ["migrate", ...reads, "--into", db.url, "--table", table, "--quiet"],
    checkpoint: tableCheckpoint(table),
    same: () => sameTables(table, clean),
    remove: () => dropTables(table)
  })

  /** Resolves once the run has committed `records` records by its checkpoint (or has ended). */
  const committed = async (child: ChildProcess, checkpoint: Probe, records: number) => {
    while (child.exitCode === null && child.signalCode === null && (await checkpoint()) < records) await sleep(5)
  }
  /** The records a file run's checkpoint says are written (none while it has none, or while it is being replaced). */
  const fileCheckpoint =
    (out: string): Probe =>
    async () => {
      try {
        return (JSON.parse(await readFile(join(dirname(out), `.${basename(out)}.resumable.checkpoint`), "utf8")) as { report: { records: number } }).report
          .records
      } catch {
        return 0
      }
    }
  const tableCheckpoint =
    (table: string): Probe =>
    async () => {
      const row = await db.admin
        .query(`select (report->>'records')::int as n from scanbridge_checkpoints where table_name = $1`, [`"${table}"`])
        .catch(() => ({ rows: [] }))
      return (row.rows[0] as { n: number } | undefined)?.n ?? 0
    }

  /**
   * One trial: a run (`attempt` gives its arguments, what tells the records it has committed, and
   * how to compare its outputs with the clean run's), broken by `fault` at a random place: once its
   * checkpoint has passed a random record (so the place depends on the data, not on the machine's
   * speed), and a random few milliseconds into the chunk after. Then `--resume`d (after `mend`) and
   * compared. A run that ends before its fault is checked as it is, and tried again (on outputs of
   * its own) with an earlier place, up to four times.
   */
  const trial = async (
    kind: Kind,
    name: string,
    attempt: (n: number) => {
      readonly args: ReadonlyArray<string>
      readonly checkpoint: Probe
      readonly same: () => Promise<boolean>
      /** Removes what the attempt wrote, once compared: a sweep would otherwise fill the disk. */
      readonly remove: () => Promise<void>
    },
    fault: (child: ChildProcess) => Promise<void>,
    mend: () => Promise<void>
  ) => {
    count(kind, "trials")
    for (let n = 0; ; n++) {
      const { args, checkpoint, same, remove } = attempt(n)
      step(`${kind} ${name}: started (attempt ${n + 1})`)
      const run = spawned(args)
      const { child, printed } = run
      // Up to three quarters in: a source reads a few chunks ahead of what is committed.
      const place = 1 + pick(Math.floor((ROWS * 0.75) / 2 ** n))
      await committed(child, checkpoint, place)
      await sleep(pick(50))
      const running = child.exitCode === null && child.signalCode === null
      step(`${kind} ${name}: ${running ? `fault after record ${place}` : "finished before its fault"}`)
      if (running) await fault(child)
      const code = await ended(run, `${kind} ${name}`)
      step(`${kind} ${name}: exited ${code}`)
      if (running) await mend()
      expect(printed()).not.toContain(db.url)
      if (code === 0) {
        // A run that says it finished wrote everything, fault or none: checked before any resume
        // could make up for it.
        expect(await same(), `${kind} ${name}: exit 0, and its output differs from a clean run's (seed ${seed})`).toBe(true)
        if (n < 3) {
          await remove()
          continue
        }
      } else {
        expect(running, printed()).toBe(true)
        count(kind, "faulted")
      }
      step(`${kind} ${name}: resuming`)
      const resumed = spawned([...args, "--resume"])
      expect(await ended(resumed, `${kind} ${name} resumed`), resumed.printed()).toBe(0)
      count(kind, "resumed")
      expect(await same(), `${kind} ${name}: the resumed run's output differs from a clean run's (seed ${seed})`).toBe(true)
      count(kind, "identical")
      return remove()
    }
  }

  const kill = (signal: NodeJS.Signals) => async (child: ChildProcess) => void child.kill(signal)
  const stop = (mode: StopMode) => () => db.kill(mode)
  const nothing = async () => {}

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "scanbridge-faults-"))
    const all = records()
    await writeFile(join(dir, "a.ndjson"), `${Array.from({ length: ROWS / 2 }, (_, i) => all[i % all.length]).join("\n")}\n`)
    await writeFile(join(dir, "b.ndjson"), `${Array.from({ length: ROWS / 2 }, (_, i) => all[(i * 5) % all.length]).join("\n")}\n`)
    db = await startPostgres()
    // Ids in an order their text does not keep, every record of the example export among them.
    await db.admin.query("create table legacy (id bigint primary key, payload text)")
    await db.admin.query("insert into legacy select g * 7 + 3, ($1::text[])[1 + g % array_length($1::text[], 1)] from generate_series(0, $2 - 1) g", [
      all,
      ROWS
    ])
    const out = (name: string) => ["--out", join(dir, `${name}.ndjson`), "--rejects", join(dir, `${name}.rejects`)]
    await clean("file run killed", ["migrate", ...inputs(), ...out("clean-files"), "--quiet"])
    await clean("source server stopped", ["migrate", ...fromQuery(), ...out("clean-query"), "--quiet"])
    await clean("database run killed", ["migrate", ...fromQuery(), "--into", db.url, "--table", "clean_query", "--quiet"])
    await clean("sink server stopped", ["migrate", ...inputs(), "--into", db.url, "--table", "clean_files", "--quiet"])
  }, TIMEOUT)

  afterAll(async () => {
    const lines = [...figures].map(
      ([kind, f]) => `  ${kind}: ${f.trials} trials, ${f.faulted} broken midway, ${f.resumed} resumed, ${f.identical} identical to a run that never stopped`
    )
    console.log(`fault injection (seed ${seed}):\n${lines.join("\n")}`)
    await db?.stop()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  }, TIMEOUT)

  describe(`fault injection, ${trials} trial(s) of each kind`, () => {
    it(
      "a file run killed at a random place (SIGKILL, SIGTERM, SIGINT), then resumed, writes the bytes of a run that never stopped",
      async () => {
        const signals = ["SIGKILL", "SIGTERM", "SIGINT"] as const
        for (let i = 0; i < trials; i++) {
          await trial(
            "file run killed",
            `${i} (${signals[i % 3]})`,
            (n) => intoFiles(inputs(), join(dir, `killed-${i}-${n}`), "clean-files"),
            kill(signals[i % 3]!),
            nothing
          )
        }
      },
      TIMEOUT
    )

    it(
      "a database-to-database run killed at a random place, then resumed, leaves the tables of a run that never stopped",
      async () => {
        for (let i = 0; i < trials; i++) {
          await trial("database run killed", String(i), (n) => intoTable(fromQuery(), `killed_${i}_${n}`, "clean_query"), kill("SIGKILL"), nothing)
        }
      },
      TIMEOUT
    )

    it(
      "a database source's server stopped (fast, immediate) under a resumable file run fails the run; restarted and resumed, the files are a clean run's",
      async () => {
        for (let i = 0; i < trials; i++) {
          const mode: StopMode = i % 2 === 0 ? "fast" : "immediate"
          await trial(
            "source server stopped",
            `${i} (${mode})`,
            (n) => intoFiles(fromQuery(), join(dir, `source-${i}-${n}`), "clean-query"),
            stop(mode),
            () => db.restart()
          )
        }
      },
      TIMEOUT
    )

    it(
      "a database sink's server stopped (fast, immediate) under a run fails the run; restarted and resumed, the tables are a clean run's",
      async () => {
        for (let i = 0; i < trials; i++) {
          const mode: StopMode = i % 2 === 0 ? "immediate" : "fast"
          await trial(
            "sink server stopped",
            `${i} (${mode})`,
            (n) => intoTable(inputs(), `sink_${i}_${n}`, "clean_files"),
            stop(mode),
            () => db.restart()
          )
        }
      },
      TIMEOUT
    )
  })
}
