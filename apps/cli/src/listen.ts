/** `--listen host:port` as both servers take it; IPv6 hosts in brackets. Port 0 picks a free port. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(value);
  if (match === null) throw new Error(`--listen takes host:port, not ${JSON.stringify(value)}`);
  const port = Number(match[2]);
  if (port > 65535) throw new Error(`invalid port ${port}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}
