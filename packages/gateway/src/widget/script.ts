/**
 * The text of the widget script and its stylesheet, as the gateway serves them. The script is
 * plain ES2019 run by browsers as it is (no build step there, no eval, no inline styles), so it
 * lives here as text; the figures it checks `userStats` against are written into it from
 * @scanbridge/model, so that it refuses exactly what the session package's `checkWidgetOptions`
 * refuses. It is written without template literals, since it sits in one.
 */
import { HUMAN_RANGES, MM_PER_INCH, GRAMS_PER_POUND, type Range } from "@scanbridge/model"

/** Where the gateway serves the script and the stylesheet: the old widget's versioned paths. */
export const WIDGET_SCRIPT_PATH = "/widget/v0/widget.js"
export const WIDGET_STYLESHEET_PATH = "/widget/v0/widget.css"

/** How often the widget reads the session's results while they are pending: document 2's "a couple of seconds". */
export const DEFAULT_POLL_MS = 2000
/** The `pollMs` a script address may set, in milliseconds (tests poll fast; see widget.ts). */
export const POLL_MS_RANGE: Range = { min: 50, max: 60_000 }

/** What the hosted scanner posts to its parent window when a scan is done (the simulator's scanner does). */
export const SCANNER_MESSAGE_TYPE = "scanbridge:scanner"

/** A canonical range in a display unit of `perUnit` canonical units, rounded as the display rounds (session's widget.ts). */
const shownRange = (range: Range, perUnit: number): Range => ({ min: Math.round(range.min / perUnit), max: Math.round(range.max / perUnit) })

const constants = () => ({
  SCRIPT_PATH: WIDGET_SCRIPT_PATH,
  STYLESHEET_PATH: WIDGET_STYLESHEET_PATH,
  DEFAULT_POLL_MS,
  POLL_MS: POLL_MS_RANGE,
  MESSAGE_TYPE: SCANNER_MESSAGE_TYPE,
  KEYS: { metric: ["heightCm", "weightKg", "age", "gender"], imperial: ["heightFt", "heightIn", "weightLbs", "age", "gender"] },
  FIELDS: {
    heightCm: { unit: "cm", range: shownRange(HUMAN_RANGES.heightMm, 10) },
    weightKg: { unit: "kg", range: shownRange(HUMAN_RANGES.weightG, 1000) },
    // Checked with heightIn, as the total height.
    heightFt: { unit: "ft", range: null },
    heightIn: { unit: "in", range: null },
    weightLbs: { unit: "lb", range: shownRange(HUMAN_RANGES.weightG, GRAMS_PER_POUND) },
    age: { unit: "years", range: HUMAN_RANGES.age }
  },
  HEIGHT_INCHES: shownRange(HUMAN_RANGES.heightMm, MM_PER_INCH)
})

/** The widget script. */
export const widgetScript = (): string => `/* BodygramScanningWidget, served by the Scanbridge legacy gateway. */
(function () {
  "use strict";
  var C = ${JSON.stringify(constants())};
  var UNREACHABLE = "the gateway could not be reached";

  // The gateway is where this script came from: every request goes to it.
  var source = (function () {
    var current = document.currentScript;
    if (current && current.src) return current.src;
    var scripts = document.getElementsByTagName("script");
    for (var i = scripts.length - 1; i >= 0; i--) {
      if (scripts[i].src && scripts[i].src.split("?")[0].slice(-C.SCRIPT_PATH.length) === C.SCRIPT_PATH) return scripts[i].src;
    }
    return null;
  })();
  var address = source === null ? null : new URL(source, document.baseURI);
  var base = null;
  if (address !== null) {
    var path = address.pathname;
    var at = path.lastIndexOf(C.SCRIPT_PATH);
    base = address.origin + (at >= 0 ? path.slice(0, at) : "");
  }
  // pollMs on the script's address: how often pending results are read (tests poll fast).
  var pollMs = C.DEFAULT_POLL_MS;
  var asked = address === null ? NaN : Number(address.searchParams.get("pollMs") || NaN);
  if (Math.floor(asked) === asked && asked >= C.POLL_MS.min && asked <= C.POLL_MS.max) pollMs = asked;

  var preview = function (value) {
    if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "..." : value);
    if (value === null || typeof value !== "object") return String(value);
    return Array.isArray(value) ? "an array" : "an object";
  };
  var isObject = function (value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  };

  // userStats in the system's units, as @scanbridge/session's checkWidgetOptions reads them: why not, or null.
  var checkStats = function (stats, system) {
    if (!isObject(stats)) return "userStats: expected an object, not " + preview(stats);
    var keys = C.KEYS[system];
    var other = C.KEYS[system === "metric" ? "imperial" : "metric"];
    var given = Object.keys(stats);
    for (var i = 0; i < given.length; i++) {
      if (keys.indexOf(given[i]) >= 0) continue;
      var hint = other.indexOf(given[i]) >= 0 ? ", which is " + (system === "metric" ? "imperial" : "metric") + ": the stats must be in the system of measurement (" + system + ")" : "";
      return "userStats." + given[i] + ": not a " + system + " stat" + hint + "; expected " + keys.join(", ");
    }
    for (var k = 0; k < keys.length; k++) {
      var key = keys[k];
      var v = stats[key];
      var at = "userStats." + key + ": ";
      if (key === "gender") {
        if (v !== "male" && v !== "female") return at + "expected male or female, not " + preview(v);
        continue;
      }
      var field = C.FIELDS[key];
      if (typeof v !== "number" || !isFinite(v)) return at + "expected a number of " + field.unit + ", not " + preview(v);
      var r = field.range || { min: 0, max: Infinity };
      if (v < r.min || v > r.max) return at + v + " is outside the human range " + r.min + "-" + r.max + " " + field.unit;
      if (Math.floor(v) !== v) return at + "expected a whole number of " + field.unit + "; send " + Math.round(v);
    }
    if (system === "imperial") {
      if (stats.heightIn > 11) return "userStats.heightIn: expected 0 to 11: the inches beyond heightFt";
      var total = stats.heightFt * 12 + stats.heightIn;
      var h = C.HEIGHT_INCHES;
      if (total < h.min || total > h.max) {
        return "userStats.heightFt: " + stats.heightFt + " ft " + stats.heightIn + " in (" + total + " in) is outside the human range " + h.min + "-" + h.max + " in";
      }
    }
    return null;
  };

  // The options as document 2 lists them: why not, or null.
  var checkOptions = function (o) {
    if (!isObject(o)) return "options: expected an object, not " + preview(o);
    if (typeof o.ssid !== "string" || o.ssid.trim() === "") return "ssid: required: the session id from create-session";
    var system = o.systemOfMeasurement == null ? "metric" : o.systemOfMeasurement;
    if (system !== "metric" && system !== "imperial") return "systemOfMeasurement: expected metric or imperial, not " + preview(system);
    var strings = ["os", "version"];
    for (var i = 0; i < strings.length; i++) {
      var s = o[strings[i]];
      if (s !== undefined && typeof s !== "string") return strings[i] + ": expected a string, not " + preview(s);
    }
    if (o.userStats !== undefined) {
      var stats = checkStats(o.userStats, system);
      if (stats !== null) return stats;
    }
    var callbacks = ["onLoad", "onResult", "onError"];
    for (var j = 0; j < callbacks.length; j++) {
      var f = o[callbacks[j]];
      if (f !== undefined && typeof f !== "function") return callbacks[j] + ": expected a function, not " + preview(f);
    }
    return null;
  };

  // A page's callback that throws is reported as the page's own error, after the widget's state is settled.
  var call = function (f, value) {
    if (typeof f !== "function") return;
    try {
      f(value);
    } catch (e) {
      setTimeout(function () {
        throw e;
      }, 0);
    }
  };

  // A GET whose JSON body is read whatever the status; rejected only when the gateway cannot be reached.
  var getJson = function (url) {
    return fetch(url, { credentials: "omit", cache: "no-store" }).then(function (response) {
      return response.json().then(
        function (body) {
          return { ok: response.ok, status: response.status, body: body };
        },
        function () {
          return { ok: false, status: response.status, body: null };
        }
      );
    });
  };

  var errorOf = function (reply, otherwise) {
    var body = isObject(reply.body) ? reply.body : {};
    var error = isObject(body.error) ? body.error : body;
    var type = typeof error.errorType === "string" ? error.errorType : reply.status === 404 ? "INVALID_SESSION_ID" : "INTERNAL_ERROR";
    var message = typeof error.message === "string" ? error.message : otherwise + " (HTTP " + reply.status + ")";
    return { errorType: type, message: message };
  };

  var stopPolling = function (state) {
    state.polling = false;
    clearTimeout(state.timer);
    state.timer = null;
  };

  var fail = function (state, error) {
    stopPolling(state);
    if (typeof state.options === "object" && state.options !== null && typeof state.options.onError === "function") call(state.options.onError, error);
    else if (window.console) window.console.error("BodygramScanningWidget: " + error.errorType + ": " + error.message);
  };

  var poll = function (state, run) {
    if (state.run !== run || !state.polling) return;
    state.timer = null;
    state.inFlight = true;
    getJson(state.base + "/scanning/v0/results/" + encodeURIComponent(state.options.ssid)).then(
      function (reply) {
        if (state.run !== run) return;
        state.inFlight = false;
        if (!state.polling) return;
        var body = isObject(reply.body) ? reply.body : {};
        if (isObject(body.results)) {
          stopPolling(state);
          call(state.options.onResult, body);
          return;
        }
        var error = isObject(body.error) ? body.error : null;
        // The user has not finished the scanner yet: as pending.
        var waiting = isObject(body.pending) || (error !== null && error.errorType === "USER_INPUT_NOT_SUBMITTED");
        if (!waiting) {
          fail(state, errorOf(reply, "the gateway answered without the session's results"));
          return;
        }
        if (state.again) {
          state.again = false;
          poll(state, run);
        } else {
          state.timer = setTimeout(function () {
            poll(state, run);
          }, pollMs);
        }
      },
      function () {
        if (state.run !== run) return;
        state.inFlight = false;
        fail(state, { errorType: "INTERNAL_ERROR", message: UNREACHABLE });
      }
    );
  };

  // Reads the results now rather than at the next tick (the scanner said it is done).
  var pollNow = function (state, run) {
    if (state.run !== run || !state.polling) return;
    if (state.inFlight) {
      state.again = true;
      return;
    }
    clearTimeout(state.timer);
    poll(state, run);
  };

  var addStylesheet = function (base) {
    var href = base + C.STYLESHEET_PATH;
    var links = document.getElementsByTagName("link");
    for (var i = 0; i < links.length; i++) if (links[i].href === href) return;
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    (document.head || document.documentElement).appendChild(link);
  };

  var scannerQuery = function (o) {
    var system = o.systemOfMeasurement == null ? "metric" : o.systemOfMeasurement;
    var query = "?systemOfMeasurement=" + system;
    if (o.userStats !== undefined) {
      var keys = C.KEYS[system];
      for (var i = 0; i < keys.length; i++) query += "&" + keys[i] + "=" + encodeURIComponent(String(o.userStats[keys[i]]));
    }
    return query;
  };

  var openScanner = function (state, run, url) {
    var frame = document.createElement("iframe");
    frame.className = "bodygram-widget__frame";
    frame.title = "Body scanner";
    frame.setAttribute("allow", "camera; microphone; accelerometer; gyroscope; fullscreen");
    frame.addEventListener("load", function () {
      if (state.run !== run || state.loaded) return;
      state.loaded = true;
      call(state.options.onLoad, undefined);
    });
    state.listener = function (event) {
      var data = event.data;
      if (event.source === frame.contentWindow && isObject(data) && data.type === C.MESSAGE_TYPE && data.status === "done") pollNow(state, run);
    };
    window.addEventListener("message", state.listener);
    frame.src = url;
    state.root.appendChild(frame);
  };

  var insert = function (state) {
    if (state.root !== null) return;
    var problem = checkOptions(state.options);
    if (problem !== null) return fail(state, { errorType: "INVALID_USER_INPUT", message: problem });
    if (base === null) return fail(state, { errorType: "INTERNAL_ERROR", message: "the widget cannot tell its gateway: load it with <script src>" });
    var container = typeof state.containerId === "string" ? document.getElementById(state.containerId) : null;
    if (container === null) return fail(state, { errorType: "INVALID_USER_INPUT", message: "containerId: no element has the id " + preview(state.containerId) });
    addStylesheet(base);
    var root = document.createElement("div");
    root.className = "bodygram-widget";
    container.appendChild(root);
    state.root = root;
    state.base = base;
    state.polling = true;
    var run = ++state.run;
    getJson(base + "/gateway/v0/sessions/" + encodeURIComponent(state.options.ssid) + "/scanner" + scannerQuery(state.options)).then(
      function (reply) {
        if (state.run !== run) return;
        // An unknown session, or one whose scan is in or which expired: the results say which, in the session API's words.
        if (reply.status === 404 || reply.status === 410) {
          poll(state, run);
          return;
        }
        var url = isObject(reply.body) ? reply.body.url : undefined;
        // Only a web address goes into the frame.
        if (!reply.ok || typeof url !== "string" || !/^https?:[/][/]/i.test(url)) {
          var error = errorOf(reply, "the gateway gave no scanner address");
          if (reply.status === 400) error.errorType = "INVALID_USER_INPUT";
          fail(state, error);
          return;
        }
        openScanner(state, run, url);
        poll(state, run);
      },
      function () {
        if (state.run === run) fail(state, { errorType: "INTERNAL_ERROR", message: UNREACHABLE });
      }
    );
  };

  var remove = function (state) {
    state.run++;
    stopPolling(state);
    state.inFlight = false;
    state.again = false;
    state.loaded = false;
    if (state.listener !== null) window.removeEventListener("message", state.listener);
    state.listener = null;
    if (state.root !== null && state.root.parentNode) state.root.parentNode.removeChild(state.root);
    state.root = null;
  };

  var states = new WeakMap();

  class BodygramScanningWidget {
    constructor(containerId, options) {
      states.set(this, {
        containerId: containerId,
        options: options,
        base: null,
        root: null,
        run: 0,
        polling: false,
        timer: null,
        inFlight: false,
        again: false,
        loaded: false,
        listener: null
      });
    }

    /** Opens the hosted scanner for the session in the container, and reads its results until they are in. */
    insert() {
      insert(states.get(this));
    }

    /** Shows or hides the widget. */
    toggle() {
      var state = states.get(this);
      if (state.root !== null) state.root.hidden = !state.root.hidden;
    }

    /** Takes the widget off the page and stops reading results. */
    remove() {
      remove(states.get(this));
    }
  }

  window.BodygramScanningWidget = BodygramScanningWidget;
})();
`

/** The widget's stylesheet: the frame's size; hiding by the `hidden` attribute works without it. */
export const WIDGET_STYLESHEET = `/* BodygramScanningWidget, served by the Scanbridge legacy gateway. */
.bodygram-widget {
  display: block;
  width: 100%;
}
.bodygram-widget[hidden] {
  display: none;
}
.bodygram-widget__frame {
  display: block;
  width: 100%;
  height: 720px;
  max-height: 90vh;
  border: 0;
}
`
