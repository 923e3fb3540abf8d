import QRCode from 'qrcode';

/** A few seconds of 640x480 video (YUV 4:2:0) showing `text` as a QR code, black on white. */
export function qrVideo(text: string): Buffer {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const [w, h] = [640, 480];
  const scale = Math.floor(400 / (size + 8));
  const origin = { x: Math.floor((w - size * scale) / 2), y: Math.floor((h - size * scale) / 2) };
  const luma = Buffer.alloc(w * h, 235);
  for (let r = 0; r < size; r++)
    for (let c = 0; c < size; c++) {
      if (!qr.modules.get(r, c)) continue;
      for (let y = 0; y < scale; y++)
        luma.fill(
          16,
          (origin.y + r * scale + y) * w + origin.x + c * scale,
          (origin.y + r * scale + y) * w + origin.x + (c + 1) * scale,
        );
    }
  const chroma = Buffer.alloc((w / 2) * (h / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  return Buffer.concat([
    Buffer.from(`YUV4MPEG2 W${w} H${h} F10:1 Ip A1:1 C420jpeg\n`),
    ...Array.from({ length: 20 }, () => frame),
  ]);
}
