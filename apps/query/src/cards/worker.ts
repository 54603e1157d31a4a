import { type CardData, renderCard } from './render.ts';

/** The card pool's worker (piscina): draws one card, off the service's event loop. */
export default async function drawCard(data: CardData): Promise<Uint8Array> {
  const png = await renderCard(data);
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
