import { defaultSettings, type StreamSelection } from './settings.js';
import { SettingsError } from './settings-error.js';
import type { SettingsFile } from './settings-file.js';
import { streams } from './streams.js';

/**
 * The file's `streams` group as settings: `include` and `exclude` as written, and the streams in
 * history mode from `history: true` (all of the catalogue), `history: [...]`, or per stream
 * `"<stream>": { "history": true }` (a stream the catalogue does not have is named in the error).
 */
export function streamSelection(file: SettingsFile['streams']): StreamSelection {
  if (file === undefined) return defaultSettings.streams;
  const { include, exclude, history, ...perStream } = file;
  const named = new Set(history === true ? Object.keys(streams) : history === false ? [] : (history ?? []));
  for (const [stream, setting] of Object.entries(perStream)) {
    if (!(stream in streams)) throw new SettingsError(`streams.${stream}`, 'no such stream');
    if ((setting as { history: boolean }).history) named.add(stream);
    else named.delete(stream);
  }
  return {
    include: include ?? defaultSettings.streams.include,
    exclude: exclude ?? defaultSettings.streams.exclude,
    history: [...named],
  };
}
