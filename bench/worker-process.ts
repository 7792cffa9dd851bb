import { type ChildProcess, spawn } from 'node:child_process';

/** Starts `tms-sync worker` with `env` and resolves once it logged "worker started". */
export async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['dist/tms-sync.js', 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes('"worker started"')) return;
      worker.stdout!.off('data', onData);
      worker.stderr!.off('data', onData);
      resolve();
    };
    worker.stdout!.on('data', onData);
    worker.stderr!.on('data', onData);
    worker.once('exit', (code) =>
      reject(new Error(`the worker exited (${code}) before it started:\n${output}`)),
    );
  });
  worker.stdout!.resume();
  worker.stderr!.resume();
  return worker;
}
