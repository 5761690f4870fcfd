/**
 * What a session API server says when it refuses: the error messages, in the session's language,
 * and the HTTP status of each error type. Spec 02 shows neither (only that messages are
 * "developer-oriented" and localized, and that the statuses are "not shown"); these are
 * Scanbridge's, shared by the legacy simulator and the gateway so that both answer alike. A
 * client must depend on neither: SessionClient reads the body whatever the status.
 */
import type * as Wire from "./wire.js"

/** The languages messages are written in. Any other code falls back to English, as spec 02 says. */
export type SessionLanguage = "en" | "ja"

/** Every error type of create-session and of GET results. */
export type SessionErrorType = Wire.CreateErrorType | Wire.ResultsErrorType

/** The message of each error type, per language; a type with none is sent as its name. */
export const SESSION_ERROR_MESSAGES: Readonly<Record<SessionLanguage, Readonly<Partial<Record<SessionErrorType, string>>>>> = {
  en: {
    INVALID_CLIENT_ID: "The client id is missing or not valid.",
    MALFORMED_REQUEST_BODY: "The request body is malformed.",
    INVALID_USER_INPUT: "The submitted photos or measurements could not be used.",
    SESSION_EXPIRED: "The scanning session has expired.",
    USER_INPUT_NOT_SUBMITTED: "The user has not submitted measurement data and photos yet.",
    ABORTED: "The scan was aborted.",
    INTERNAL_ERROR: "An internal error occurred.",
    INVALID_SESSION_ID: "The scanning session id is not valid."
  },
  ja: {
    INVALID_CLIENT_ID: "クライアントIDが指定されていないか、無効です。",
    MALFORMED_REQUEST_BODY: "リクエストの形式が正しくありません。",
    INVALID_USER_INPUT: "送信された写真または測定データを使用できませんでした。",
    SESSION_EXPIRED: "スキャンセッションの有効期限が切れました。",
    USER_INPUT_NOT_SUBMITTED: "ユーザーはまだ測定データと写真を送信していません。",
    ABORTED: "スキャンは中止されました。",
    INTERNAL_ERROR: "内部エラーが発生しました。",
    INVALID_SESSION_ID: "スキャンセッションIDが無効です。"
  }
}

/**
 * The HTTP status of each error type; the others are answered 200, as a results error that
 * describes the scan (INVALID_USER_INPUT, SESSION_EXPIRED, ...) is the answer to a good request.
 */
export const SESSION_ERROR_STATUS: Readonly<Partial<Record<SessionErrorType, number>>> = {
  INVALID_CLIENT_ID: 401,
  MALFORMED_REQUEST_BODY: 400,
  INVALID_SESSION_ID: 404,
  INTERNAL_ERROR: 500
}

/** The language a session speaks for a `languageCode`: `ja`, or English for anything else. */
export const sessionLanguage = (code: unknown): SessionLanguage => (code === "ja" ? "ja" : "en")

/** The message of an error type in a language, with what went wrong in brackets after it. */
export const sessionErrorMessage = (language: SessionLanguage, type: SessionErrorType, detail?: string): string => {
  const text = SESSION_ERROR_MESSAGES[language][type] ?? SESSION_ERROR_MESSAGES.en[type] ?? type
  return detail === undefined ? text : `${text} (${detail})`
}
