/** The deprecated session API served on the platform (to be written: helper "session"). */
import * as HttpRouter from "@effect/platform/HttpRouter"

export const sessionRouter = HttpRouter.empty
