/**
 * Statures for property tests whose scans come from the model's Arbitrary: its lengths belong to
 * one human body, the subject's stature where that is a human one, and a platform record, which
 * must state a whole-millimetre height, has to keep them judged against the same body.
 */
import { HUMAN_RANGES } from "@scanbridge/model"

const { max, min } = HUMAN_RANGES.heightMm

export const isHumanStature = (mm: number): boolean => mm >= min && mm <= max

/**
 * The whole millimetres of a scan's stature where it is a human one; else one that no human has
 * (`other`, moved past the tallest when it is human), so that the lengths are judged against the
 * stature they imply, as the Arbitrary made them. Rounding a stature that is just past the range
 * would have made it human, and the lengths another body's.
 */
export const wholeStature = (heightMm: number | null, other: number): number =>
  heightMm !== null && isHumanStature(heightMm) ? Math.round(heightMm) : isHumanStature(other) ? other + max : other
