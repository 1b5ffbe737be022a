import type { Origin } from '../harness/origin.ts';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One GET, its body parsed when JSON. */
export async function get(origin: Origin, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await origin.fetch(path, { headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body };
}

/** `count` GETs sent at once (to one origin, or spread over several in turn). */
export function parallel(origins: Origin[], count: number, path: string, headers: (i: number) => Record<string, string> = () => ({})): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => get(origins[i % origins.length]!, path, headers(i))));
}

export const statuses = (answers: Answer[]) => answers.map((a) => a.status);
export const countOf = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
