/**
 * Imported first by the driver-level tests: fixes the process's zone before
 * origin/time.ts reads it, to one with a half-hour daylight-saving shift and
 * a local-mean-time offset in seconds before 1895.
 */
export const ZONE = 'Australia/Lord_Howe';
process.env.TZ = ZONE;
