import type { Dimension, Template } from '../types.js';
import { COMMAND_TEMPLATES } from './command.js';
import { DIFF_SIZE_TEMPLATES } from './diff-size.js';
import { PATH_TEMPLATES } from './path.js';
import { SCOPE_TEMPLATES } from './scope.js';
import { SECRET_TEMPLATES } from './secret.js';
import { TEST_TAMPERING_TEMPLATES } from './test-tampering.js';
import { TRAVERSAL_TEMPLATES } from './traversal.js';

/** Every dimension's templates; keyed by the dimension union, so a dimension without templates does not compile. */
export const TEMPLATES: { readonly [D in Dimension]: readonly Template[] } = {
  path: PATH_TEMPLATES,
  secret: SECRET_TEMPLATES,
  command: COMMAND_TEMPLATES,
  'diff-size': DIFF_SIZE_TEMPLATES,
  scope: SCOPE_TEMPLATES,
  'test-tampering': TEST_TAMPERING_TEMPLATES,
  traversal: TRAVERSAL_TEMPLATES,
};
