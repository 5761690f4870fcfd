/**
 * The estimation API's dialect (spec 02, part B): its `result.measurement` keys for the
 * catalogue's measurements, and its keys for the stats (`estimation.input.*`) and body
 * composition (`result.body_composition.*`). The API states no units: the codec infers them
 * per record (internal/inference.ts), among the candidates below, unless the caller states them.
 * Each right-side key without its `_r` (`knee_height`) is another spelling the dialect derives.
 */
import { type Dialect, type Spelling, makeDialect } from "@scanbridge/model"

/**
 * The units a `result.measurement` length is inferred in, and written in; the API does not say
 * which. A caller may state inches too (UnitOptions.lengthUnit), which are never inferred.
 */
export type LengthUnit = "mm" | "cm"
/** The scales of `body_fat_percentage`: a percentage, or a percentage x 10^4. */
export type BodyFatScale = "percent" | "e4"
/** The units of `muscle_mass`. */
export type MuscleMassUnit = "g" | "kg"

export const estimationDialect: Dialect<Spelling, Spelling> = makeDialect<Spelling, Spelling>({
  api: "estimation",
  measurements: {
    acrossBackShoulderWidth: { name: "across_back_shoulder_width" },
    backNeckHeight: { name: "back_neck_height" },
    backNeckPointToGroundContoured: { name: "back_neck_point_to_ground_contoured" },
    backNeckPointToWaist: { name: "back_neck_point_to_waist" },
    backNeckPointToWristLengthR: { name: "back_neck_point_to_wrist_length_r" },
    bellyWaistDepth: null,
    bellyWaistGirth: { name: "belly_waist_girth" },
    bellyWaistHeight: { name: "belly_waist_height" },
    bellyWaistWidth: null,
    bustGirth: { name: "bust_girth" },
    bustHeight: { name: "bust_height" },
    calfGirthR: { name: "calf_girth_r" },
    forearmGirthR: { name: "forearm_girth_r" },
    hipGirth: { name: "hip_girth" },
    hipHeight: { name: "hip_height" },
    insideLegHeight: { name: "inside_leg_height" },
    insideLegLengthR: { name: "inside_leg_length_r" },
    kneeGirthR: { name: "knee_girth_r" },
    kneeHeightR: { name: "knee_height_r" },
    midThighGirthR: { name: "mid_thigh_girth_r" },
    neckBaseGirth: { name: "neck_base_girth" },
    neckGirth: { name: "neck_girth" },
    outerAnkleHeightR: { name: "outer_ankle_height_r" },
    outerArmLengthR: { name: "outer_arm_length_r" },
    outseamR: { name: "outseam_r" },
    outsideLegLengthR: { name: "outside_leg_length_r" },
    shoulderToElbowR: { name: "shoulder_to_elbow_r" },
    thighGirthR: { name: "thigh_girth_r" },
    topHipGirth: { name: "top_hip_girth" },
    topHipHeight: { name: "top_hip_height" },
    underBustGirth: { name: "under_bust_girth" },
    upperArmGirthR: { name: "upper_arm_girth_r" },
    waistGirth: { name: "waist_girth" },
    waistHeight: { name: "waist_height" },
    wristGirthR: { name: "wrist_girth_r" }
  },
  stats: {
    "composition.skeletalMuscleMassG": { name: "skeletal_muscle_mass" },
    "composition.bodyFatPercent": { name: "body_fat_percentage" },
    "subject.weightG": { name: "weight" },
    "subject.age": { name: "age" },
    "subject.gender": { name: "gender" },
    "subject.heightMm": { name: "height" }
  }
})
