export function drawIcon(size?: number): Buffer;
export function encodePng(pixels: Buffer, size: number): Buffer;
export const iconPath: string;
