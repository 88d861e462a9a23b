import { randomBytes } from 'node:crypto';
import { SecretSet } from '@crypto-service/core';
const LEN = Number(process.argv[2] ?? 256);
const key = randomBytes(LEN).toString('hex').slice(0, LEN);
const other = randomBytes(LEN).toString('hex').slice(0, LEN);
const set = new SecretSet([Buffer.from(key), Buffer.from(other)]);
const keyBuf = Buffer.alloc(264); keyBuf.write(key, 4, 'latin1');
const scratch = Buffer.alloc(264);
const buf = Buffer.alloc(LEN);
const ops: Record<string,(s:string)=>boolean> = {
  'SecretSet': (s) => set.matches(s),
  'string ===': (s) => s === key,
  'Buffer.equals': (s) => { scratch.write(s, 4, 'utf8'); const r = scratch.equals(keyBuf); scratch.fill(0); return r; },
};
const CROPS = [Infinity, ...Array.from({ length: 10 }, (_, i) => 1 - 0.5 ** (i + 1))];
for (const [name, op] of Object.entries(ops)) for (let attempt = 0; attempt < 5; attempt++) {
const N = 50000; const times = new Float64Array(N); const cls = new Uint8Array(N);
const coins = randomBytes(N);
for (let i = 0; i < 5000; i++) { buf.write(key, 'latin1'); buf[i&1?LEN-1:0] = 0x21; op(buf.toString('latin1')); }
for (let i = 0; i < N; i++) { const c = coins[i]! & 1; cls[i] = c; buf.write(key,'latin1'); buf[c?LEN-1:0] = 0x21 + (coins[i]! >> 2); const s = buf.toString('latin1');
 const a = process.hrtime.bigint(); op(s); const b = process.hrtime.bigint(); times[i] = Number(b-a); }
const sorted = Float64Array.from(times).sort();
const q = (p:number)=>p===Infinity?Infinity:sorted[Math.floor(p*N)]!;
let best = {t:0, d:0, p:0}; let med = 0;
for (const p of CROPS) { const lim=q(p); let n=[0,0],s=[0,0],ss=[0,0]; for(let i=0;i<N;i++){const v=times[i]!; if(v>lim)continue; const c=cls[i]!; n[c]++; s[c]+=v; ss[c]+=v*v;} if (n[0]<1000||n[1]<1000) continue; const m=[s[0]/n[0],s[1]/n[1]]; const va=[(ss[0]-n[0]*m[0]*m[0])/(n[0]-1),(ss[1]-n[1]*m[1]*m[1])/(n[1]-1)]; const se=Math.sqrt(va[0]/n[0]+va[1]/n[1]); const t=(m[0]-m[1])/se; if (p===0.5) med=m[0]-m[1]; if (Math.abs(t)>Math.abs(best.t)) best={t,d:m[0]-m[1],p}; }
console.log(name.padEnd(14), 'p50', q(0.5), `max|t| ${best.t.toFixed(1)} at crop ${best.p} diff ${best.d.toFixed(2)} ns; median-crop diff ${med.toFixed(2)}`);
}
