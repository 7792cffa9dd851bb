import { toList } from './list-setting.js';
import { defaultSettings, type StreamSelection } from './settings.js';
import { SettingsError } from './settings-error.js';
import type { SettingsFile } from './settings-file.js';
import { streams } from './streams.js';

/**
 * The file's `streams` group as settings: `include` and `exclude` as written, and the streams in
 * history mode from `history: true` (all of the catalogue), a list, or per stream
 * `"<stream>": { "history": true }`. A list is an array or a comma-separated string.
 */
export function streamSelection(file: SettingsFile['streams']): StreamSelection {
  if (file === undefined) return defaultSettings.streams;
  const { include, exclude, history, ...perStream } = file;
  const named = new Set(
    history === true ? Object.keys(streams) : history === false ? [] : toList(history ?? []),
  );
  for (const [stream, setting] of Object.entries(perStream)) {
    if (!(stream in streams)) throw new SettingsError(`streams.${stream}`, 'no such stream');
    if ((setting as { history: boolean }).history) named.add(stream);
    else named.delete(stream);
  }
  return {
    include: include === undefined ? defaultSettings.streams.include : toList(include),
    exclude: exclude === undefined ? defaultSettings.streams.exclude : toList(exclude),
    history: [...named],
  };
}
