// Short sounds for a move, the start, low time and the end, made with the
// Web Audio API (no files to fetch). Muting is remembered per browser.
// Every sound asked for while not muted is also logged in `played`, which is
// how the tests hear them.

const MUTED_KEY = 'inarow.muted';

// Each sound: tones of [frequency Hz, start s, length s, type].
const SOUNDS = {
  move: [[660, 0, 0.07, 'triangle']],
  start: [[523, 0, 0.12, 'sine'], [659, 0.12, 0.12, 'sine'], [784, 0.24, 0.18, 'sine']],
  low: [[880, 0, 0.09, 'square'], [880, 0.18, 0.09, 'square']],
  end: [[784, 0, 0.15, 'sine'], [659, 0.15, 0.15, 'sine'], [523, 0.3, 0.3, 'sine']],
};

export const played = [];
let context = null;

export function muted() {
  return localStorage.getItem(MUTED_KEY) === '1';
}

export function setMuted(value) {
  if (value) localStorage.setItem(MUTED_KEY, '1');
  else localStorage.removeItem(MUTED_KEY);
}

// Browsers start audio only after a gesture: the first click or key resumes it.
export function unlock() {
  try {
    context ??= new AudioContext();
    if (context.state === 'suspended') context.resume();
  } catch {
    context = null;  // no audio here; the page works without it
  }
}

export function play(kind) {
  const tones = SOUNDS[kind];
  if (!tones || muted()) return;
  played.push(kind);
  if (!context || context.state !== 'running') return;
  const now = context.currentTime;
  for (const [freq, at, length, type] of tones) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = type;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
    osc.connect(gain).connect(context.destination);
    osc.start(now + at);
    osc.stop(now + at + length + 0.02);
  }
}
