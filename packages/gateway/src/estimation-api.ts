/** The deprecated estimation API served on the platform (to be written: helper "estimation"). */
import * as HttpRouter from "@effect/platform/HttpRouter"

export const estimationRouter = HttpRouter.empty
