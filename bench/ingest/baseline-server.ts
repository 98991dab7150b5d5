// The baseline: a bare node:http server that reads the whole request body, parses it as JSON and
// answers 200 `{}`, the least any ingest endpoint in Node must do (issue 14 defines it so). Run as its own process; the port comes as the
// first argument. Its throughput is what every Spoor figure is divided by.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (text !== '') JSON.parse(text); // the readiness probe's GET has no body
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
});

server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
