/*
 * nm_list.h - intrusive circular doubly linked lists for the node monitor
 * core: O(1) insertion and removal of an element that knows its own link.
 */
#ifndef NM_LIST_H
#define NM_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* A link embedded in an element, or the head (sentinel) of a list. An
 * unlinked link points to itself. */
typedef struct nm_link {
    struct nm_link *ln_next;
    struct nm_link *ln_prev;
} nm_link;

/* NM_CONTAINER turns a pointer to a member back into its structure. */
#define NM_CONTAINER(ptr, type, member)                                        \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* nm_list_init makes head an empty list (or link an unlinked link). */
static inline void nm_list_init(nm_link *head)
{
    head->ln_next = head;
    head->ln_prev = head;
}

/* nm_list_empty tells whether the list at head has no element (or
 * whether a link is unlinked). */
static inline bool nm_list_empty(const nm_link *head)
{
    return head->ln_next == head;
}

/* nm_list_push_back appends the unlinked link to the list at head. */
static inline void nm_list_push_back(nm_link *head, nm_link *link)
{
    link->ln_prev = head->ln_prev;
    link->ln_next = head;
    head->ln_prev->ln_next = link;
    head->ln_prev = link;
}

/* nm_list_remove unlinks link from its list and leaves it unlinked; a
 * no-op on an unlinked link. */
static inline void nm_list_remove(nm_link *link)
{
    link->ln_prev->ln_next = link->ln_next;
    link->ln_next->ln_prev = link->ln_prev;
    nm_list_init(link);
}

/* nm_list_first returns the first link of the list at head, or NULL. */
static inline nm_link *nm_list_first(const nm_link *head)
{
    return nm_list_empty(head) ? NULL : head->ln_next;
}

#endif /* NM_LIST_H */
