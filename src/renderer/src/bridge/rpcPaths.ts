// Where browser mode's rpc calls go: the back end's wire (src/shared/rpcPaths.ts), re-exported so
// the bridge has one import.
export { RPC_TOKEN_HEADER, RPC_TOKEN_QUERY, rpcPath } from '../../../shared/rpcPaths';
