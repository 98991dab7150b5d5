// The baseline: a bare node:http server that reads the whole request body and answers 200 `{}`,
// the least any ingest endpoint in Node must do. Run as its own process; the port comes as the
// first argument. Its throughput is what every Spoor figure is divided by.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Buffer.concat(chunks);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
});

server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
