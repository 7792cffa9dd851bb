/**
 * Whether a secret is one of the stand-ins that example files ship (`change-me`, `changeme-too`,
 * `secret`, `<your-token>`, ...): a dashboard or webhook behind one is open to whoever read the
 * example. Compared without case and punctuation.
 */
export function isPlaceholderSecret(value: string): boolean {
  const bare = value.toLowerCase().replace(/[^a-z0-9]/g, '');
  return prefixes.some((prefix) => bare.startsWith(prefix)) || words.has(bare) || /^x+$/.test(bare);
}

const prefixes = ['changeme', 'changethis', 'replaceme', 'setme', 'yoursecret', 'yourtoken', 'insert'];
const words = new Set([
  '',
  'secret',
  'password',
  'placeholder',
  'example',
  'todo',
  'default',
  'none',
  'null',
]);
