import { expect } from 'vitest';
import type { ApiResponse } from './harness.ts';

/** The envelope fields every API answer carries (COMPAT §1), as merchant code parses them. */
export const RESULT_CODE = /^\d{3}\.\d{3}\.\d{3}$/;
export const BUILD_NUMBER = /^[0-9a-f]{40}@\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000$/;
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?\+0000$/;

/** Asserts a JSON answer with the full envelope and the CORS header. */
export function expectEnvelope(response: ApiResponse): void {
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof response.body).toBe('object');
  expect(response.body).toMatchObject({
    result: { code: expect.stringMatching(RESULT_CODE), description: expect.any(String) },
    buildNumber: expect.stringMatching(BUILD_NUMBER),
    timestamp: expect.stringMatching(TIMESTAMP),
    ndc: expect.any(String),
  });
  expect(response.body.ndc).not.toBe('');
  expect(response.body.result.description).not.toBe('');
}
