export { createHandoffMcpServer } from './server';
export { serveHttp, serveStdio } from './transports';
