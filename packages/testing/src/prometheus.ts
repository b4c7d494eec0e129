import { spawn } from 'node:child_process';

export interface PrometheusSample {
  /** The sample's name as exposed (`…_bucket`, `…_count`, `…_sum` for histograms). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The samples of a Prometheus text exposition, for assertions on names, labels and values. The format itself
 * is checked by Prometheus's own parser (`checkExposition`).
 */
export function parseExposition(text: string): PrometheusSample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(LABEL)].map(([, key, value]) => [key!, value!.replace(/\\(.)/g, '$1')]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** promtool's exit code when the exposition parsed but has naming problems (1 is a parse error). */
const LINT_PROBLEMS = 3;

/**
 * Runs `promtool check metrics` (Prometheus's parser and linter, from Debian's `prometheus` package, which
 * `.ci/run` installs) on an exposition: it fails on anything Prometheus would not scrape, and on naming
 * problems other than the `accepted` ones (names fixed by a convention we follow, by their metric name).
 */
export function checkExposition(text: string, accepted: readonly string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) =>
      reject(new Error(`promtool is needed (Debian package prometheus; .ci/run installs it): ${error.message}`)),
    );
    child.on('close', (code) => {
      const problems = output.split('\n').filter((line) => line.trim() && !accepted.includes(line.split(' ')[0]!));
      if (code === 0 || (code === LINT_PROBLEMS && problems.length === 0)) resolve();
      else reject(new Error(`promtool check metrics (exit ${code}):\n${problems.join('\n')}`));
    });
    child.stdin.end(text);
  });
}
