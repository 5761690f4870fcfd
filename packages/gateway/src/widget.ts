/** The widget script and the hosted-scanner address of a session (to be written: helper "widget"). */
import * as HttpRouter from "@effect/platform/HttpRouter"

export const widgetRouter = HttpRouter.empty
