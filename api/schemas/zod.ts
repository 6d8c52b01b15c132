import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every API schema imports z from here, so `.openapi(...)` is available wherever a schema is declared.
extendZodWithOpenApi(z);

export { z };
