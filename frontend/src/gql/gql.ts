/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    createdAt\n  }\n": typeof types.UserFieldsFragmentDoc,
    "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n": typeof types.MeDocument,
    "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": typeof types.SignUpDocument,
    "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": typeof types.LogInDocument,
    "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n": typeof types.LogOutDocument,
    "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n": typeof types.NotificationFieldsFragmentDoc,
    "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n": typeof types.NotificationsDocument,
    "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": typeof types.MarkNotificationsReadDocument,
    "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n": typeof types.NotificationAddedDocument,
};
const documents: Documents = {
    "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    createdAt\n  }\n": types.UserFieldsFragmentDoc,
    "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n": types.MeDocument,
    "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": types.SignUpDocument,
    "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": types.LogInDocument,
    "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n": types.LogOutDocument,
    "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n": types.NotificationFieldsFragmentDoc,
    "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n": types.NotificationsDocument,
    "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": types.MarkNotificationsReadDocument,
    "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n": types.NotificationAddedDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    createdAt\n  }\n"): (typeof documents)["\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    createdAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      user {\n        ...UserFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n"): (typeof documents)["\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n"): (typeof documents)["\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n"): (typeof documents)["\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n"): (typeof documents)["\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;