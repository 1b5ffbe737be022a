// Writes docs/reference/sluice-config.schema.json from the configuration file's zod schema (npm run config:schema).
import { writeFileSync } from 'node:fs';
import { JSON_SCHEMA_PATH, configJsonSchemaText } from '../origin/services/config/json-schema.ts';
import { projectPath } from '../origin/paths.ts';

writeFileSync(projectPath(JSON_SCHEMA_PATH), configJsonSchemaText());
