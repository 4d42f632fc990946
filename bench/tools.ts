import { fileToolsBench } from './tools-files';
import { runRiskBench } from './tools-risk';

/*
 * The tools' own costs, part by part, each measured against a plain baseline in the same run:
 * the file tools' race-free path (tools-files.ts) and the risk of commands (tools-risk.ts). The
 * last line is one JSON object with every part's figures.
 */
export async function runToolsBench(): Promise<void> {
  const files = await fileToolsBench();
  const risk = await runRiskBench();
  console.log(JSON.stringify({ bench: 'tools', ...files, ...risk }));
}
