export { isManagementPath } from '../../shared/http/route-family.ts';
