// A point pasted as one piece of text ("34.05, -118.24", "34.05 -118.24", "34.05;-118.24"), split into
// its latitude and longitude for the two boxes of the distance control. Anything else is not a point:
// the box then keeps the paste as typed, and its own check explains what is wrong with it.

/** Latitude and longitude as the boxes take them (the pasted text of each, trimmed). */
export interface PastedPoint {
  lat: string;
  lon: string;
}

const NUMBER = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)`;
const PAIR = new RegExp(`^\\s*\\(?\\s*(${NUMBER})\\s*[,;\\s]\\s*(${NUMBER})\\s*\\)?\\s*$`);

/** The two numbers of a pasted "lat, lon", or null when the text is not exactly two numbers in range. */
export function parsePastedPoint(text: string): PastedPoint | null {
  const m = PAIR.exec(text);
  if (!m) return null;
  const [lat, lon] = [m[1]!, m[2]!];
  if (Math.abs(Number(lat)) > 90 || Math.abs(Number(lon)) > 180) return null;
  return { lat, lon };
}
