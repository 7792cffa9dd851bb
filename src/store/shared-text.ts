/** Statement texts, one copy each in the process however many stores (a connection's each) make them. */
const texts = new Map<string, string>();
const maxTexts = 10_000;

/** The process's copy of a statement's text: stores of the same tables hold one string, not one each. */
export function sharedText(text: string): string {
  const known = texts.get(text);
  if (known !== undefined) return known;
  if (texts.size < maxTexts) texts.set(text, text);
  return text;
}
