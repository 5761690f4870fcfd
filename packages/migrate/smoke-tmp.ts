import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { Normalizer, migrate } from "./src/index.js"
const outs: string[] = []; const rej: string[] = []
const program = migrate({ inputs: ["../../examples/export", "../../examples/canonical"], to: process.argv[2] ?? "canonical", output: (t) => Effect.sync(() => void outs.push(t)), rejects: (t) => Effect.sync(() => void rej.push(t)) })
Effect.runPromise(program.pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, Normalizer.layer.pipe(Layer.provide(Normalizer.adapters)))))).then((r) => { console.log(JSON.stringify(r, null, 1)); console.log(rej.join("").split("\n").map(l => l.slice(0, 300)).join("\n")) })
