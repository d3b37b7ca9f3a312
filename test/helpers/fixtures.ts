/** The metadata captured beside each client-output fixture (test/fixtures/{pgbench,sysbench}/). */
export interface FixtureMeta {
  command: string[];
  exitCode: number;
  clientVersion: string;
  serverVersion: string;
  capturedAt: string;
}
