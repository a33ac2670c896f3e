// wallet.mjs makes Solana wallet addresses for tests that set a payout
// method (the server checks an address is an ed25519 point in base58).
import { generateKeyPairSync } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

// base58 encodes bytes as Solana writes keys (Bitcoin's alphabet).
function base58(bytes) {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** solanaWallet is a fresh wallet address: an ed25519 public key in base58. */
export function solanaWallet() {
  const { publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return base58(der.subarray(der.length - 32));
}
