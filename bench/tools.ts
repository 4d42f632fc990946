import { fileToolsBench } from './tools-files';

/*
 * The tools' own costs, part by part, each measured against a plain baseline in the same run:
 * the file tools' race-free path (tools-files.ts). The last line is one JSON object with every
 * part's figures.
 */
export async function runToolsBench(): Promise<void> {
  const files = await fileToolsBench();
  console.log(JSON.stringify({ bench: 'tools', ...files }));
}
