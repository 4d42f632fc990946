export function findChromium(): Promise<string | null>;
export const chromiumHelp: string;
export const chromiumArguments: readonly string[];
