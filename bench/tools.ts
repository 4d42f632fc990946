import { runRiskBench } from './tools-risk';

/** `npm run bench -- tools`: what the race-free file path and the command risk cost. */
export async function runToolsBench(): Promise<void> {
  await runRiskBench();
}
