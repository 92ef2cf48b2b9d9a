/** Reading svcd's JSON log lines (`--log-as-json`, which SvcdProcess passes) out of a process's output. */

export interface SvcdLogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export function svcdLogLines(output: string): SvcdLogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as SvcdLogLine);
}

/** The fatal "svcd failed to start" line; fails with the whole output when there is none. */
export function startupFailure(output: string): SvcdLogLine {
  const line = svcdLogLines(output).find((l) => l.level === 'fatal' && l.msg === 'svcd failed to start');
  if (!line) throw new Error(`svcd logged no "svcd failed to start" line:\n${output}`);
  return line;
}
