package dev.ratelimit.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body rewrite that {@link ListsRequestBodyAdvice} (Spring MVC) and {@link ListsRequestBodyWebFilter} (WebFlux)
 * share: Actuator reads a write's body as a map of strings, so an array of strings is joined with commas.
 */
final class ListsRequestBodies {

	private static final JsonMapper json = JsonMapper.builder().build();

	private ListsRequestBodies() {
	}

	/** Returns whether a path is one of the lists' writes, {@code .../ratelimits/lists/allow} or {@code .../deny}. */
	static boolean isListsPath(String path) {
		return path.endsWith("/ratelimits/" + RateLimitsEndpoint.LISTS + "/allow")
				|| path.endsWith("/ratelimits/" + RateLimitsEndpoint.LISTS + "/deny");
	}

	/** Joins each array of strings of a JSON object with commas; anything else is left as it is for Actuator. */
	static byte[] joinArrays(byte[] body) {
		JsonNode tree;
		try {
			tree = json.readTree(body);
		}
		catch (JacksonException ex) {
			return body;
		}
		if (!(tree instanceof ObjectNode object)) {
			return body;
		}
		boolean changed = false;
		for (Map.Entry<String, JsonNode> field : new ArrayList<>(object.properties())) {
			JsonNode value = field.getValue();
			if (value.isArray()) {
				List<String> items = new ArrayList<>();
				for (JsonNode item : value) {
					if (!item.isString()) {
						return body;
					}
					items.add(item.asString());
				}
				object.put(field.getKey(), String.join(",", items));
				changed = true;
			}
		}
		return changed ? json.writeValueAsBytes(object) : body;
	}

}
