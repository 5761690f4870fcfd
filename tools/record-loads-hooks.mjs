// Module loader hooks (they run on the loader's own thread): each module's URL, as it loads.
import { appendFileSync } from "node:fs"

let log

export const initialize = (data) => {
  log = data.log
}

export const load = (url, context, next) => {
  appendFileSync(log, `${url}\n`)
  return next(url, context)
}
