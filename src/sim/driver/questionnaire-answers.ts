import type { QuestionnaireAnswers } from '../records/index.js';
import { SimHttpError } from '../sim-http-error.js';
import type { DriverData } from './driver-data.js';
import { listQuestionnaires } from './driver-listings.js';
import { notFound, unknownReference } from './validate-body.js';

/**
 * Answers apply to the latest version of the questionnaire: every answer must name one of its
 * questions and every required question must be answered (422 otherwise).
 */
export function answerQuestionnaire(data: DriverData, id: string, body: QuestionnaireAnswers): void {
  const questionnaire = listQuestionnaires(data.master, true).find((candidate) => candidate.id === id);
  if (!questionnaire) throw notFound('questionnaire', id);
  const keys = new Set(questionnaire.questions.map((question) => question.key));
  const unknown = body.answers.find((answer) => !keys.has(answer.key));
  if (unknown) throw unknownReference('question', unknown.key);
  const answered = new Set(body.answers.map((answer) => answer.key));
  const missing = questionnaire.questions.find(
    (question) => question.required && !answered.has(question.key),
  );
  if (missing) {
    throw new SimHttpError(422, 'missing_answer', `required question ${missing.key} is not answered`, {
      question: missing.key,
    });
  }
  data.questionnaireAnswers.push({ questionnaireId: id, version: questionnaire.version, ...body });
}
