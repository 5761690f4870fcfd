import type { Adapter as ModelAdapter } from "@scanbridge/model"
import type { Adapter } from "./types.js"
/**
 * The adapters a caller gave, as the engine takes them. Their type here is their structure; the
 * values are made with `@scanbridge/model`, whose `decode` and `encode` return Effect's Either,
 * and the engine checks each (names, formats, encoder) before it reads with one.
 */
export const engineAdapters = (adapters: ReadonlyArray<Adapter>): ReadonlyArray<ModelAdapter> => adapters as unknown as ReadonlyArray<ModelAdapter>
