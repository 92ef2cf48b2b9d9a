/**
 * A durable timer's reminder, `timer-<generation>-<timerId>`: its name gives the generation and the timer id, its
 * due time the fire time, so it carries no data (a waiting timer keeps about a third less in memory). A reminder
 * stored by an earlier svcd carries the three as JSON data as well.
 */
export const timerReminder = (generation: number, timerId: number): string => `timer-${generation}-${timerId}`;

export interface FiredTimer {
  readonly generation: number;
  readonly timerId: number;
  readonly fireAt: number;
}

/** The timer a fire of its reminder stands for (`dueAt`: the reminder's due time). */
export function firedTimer(name: string, data: Buffer | undefined, dueAt: number): FiredTimer {
  if (data !== undefined) return JSON.parse(data.toString('utf8')) as FiredTimer;
  const [, generation, timerId] = name.split('-');
  return { generation: Number(generation), timerId: Number(timerId), fireAt: dueAt };
}
