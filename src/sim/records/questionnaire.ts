import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Int32 } from './record-parts.js';

/** Questionnaire, GET /driver-api/questionnaires/. Fields chosen here. */
export const Questionnaire = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Int32,
  questions: Type.Array(
    Type.Object({
      key: Type.String(),
      text: Type.String(),
      answerType: Type.String(),
      required: Type.Boolean(),
    }),
  ),
});
export type Questionnaire = Static<typeof Questionnaire>;

/** Questionnaire answers (request), docs/api.md, Records, plus the optional `mutationId` every Driver API write takes. */
export const QuestionnaireAnswers = Type.Object({
  mutationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  triggerQuestionKey: Type.String(),
  taskIds: Type.Array(Type.String()),
  rideId: Type.String(),
  goodId: Type.String(),
  traceTypeId: Type.String(),
  completedAt: DateTime,
  answers: Type.Array(Type.Object({ key: Type.String(), answerType: Type.String(), value: Type.String() })),
});
export type QuestionnaireAnswers = Static<typeof QuestionnaireAnswers>;
