// ILP over HTTP (Interledger RFC 35), as a peer's connector speaks it to `url` with its bearer
// token: a plugin for the official STREAM sender (@interledger/pay), and every packet it sent.
export function ilpOverHttp(url: string, token: string) {
  const sent: Buffer[] = [];
  const post = async (data: Buffer) => {
    sent.push(data);
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(data),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return Buffer.from(await res.arrayBuffer());
  };
  return { sent, plugin: { sendData: post }, post };
}
